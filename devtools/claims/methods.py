"""The comparisons between post-processing methods: against Base, against the MLE.

Made from ``benchmarks/results/coverage.json`` (``bench_coverage.py``: every method's
true MSE ratio to Base and how often the paired intervals hold it),
and ``benchmarks/results/learned_prior.json``
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


# --- Bayes with the learned prior against the MLE (learned_prior.json) -----------------


def _regimes() -> list[Row]:
    return list(results("learned_prior")["regimes"])


def _prior_setting() -> str:
    record = results("learned_prior")
    regimes = _regimes()
    ns = sorted({r["n"] for r in regimes})
    eps = sorted({r["epsilon"] for r in regimes})
    ds = sorted({r["d"] for r in regimes})
    protocols = list(dict.fromkeys(r["protocol"] for r in regimes))
    sizes = " and ".join(f"{d:,}" for d in ds)
    return (
        f"{len(regimes)} regimes: {', '.join(protocols)}; d = {sizes}, "
        f"ε = {' and '.join(f'{e:g}' for e in eps)}, n = {count_words(ns[0])} to "
        f"{count_words(ns[-1])}; {record['runs']} collections a regime, "
        f"{record['small_runs']} where n ≤ 10⁴; `{record['command']}`, {record['date']}"
    )


def learned_prior_table() -> str:
    """Every regime: the paired MSE ratio, coverage, α, prior pull, time and flags."""
    lines = [
        "| protocol | ε | n | d | collections | Bayes/MLE MSE [95% interval] | | frequent / rare "
        "covered (credible) | (as shown) | α (median) | prior pull | s (median) | not "
        "converged | flagged |",
        "|---|---:|---:|---:|---:|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in _regimes():
        lines.append(
            f"| {r['protocol']} | {r['epsilon']:g} | {r['n']:,} | {r['d']:,} | "
            f"{r['collections']} | {r['ratio']:.3f} [{r['low']:.3f}, {r['high']:.3f}] | "
            f"{r['outcome']} | {100 * r['raw'][0]:.1f} / {100 * r['raw'][1]:.1f} | "
            f"{100 * r['shown'][0]:.1f} / {100 * r['shown'][1]:.1f} | {r['alpha']:.3f} | "
            f"{r['pull']:.2f} | {r['seconds']:.2f} | {r['unconverged']} | {r['flagged']} |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def learned_prior_mse() -> str:
    """Where Bayes's MSE is below the MLE's, level with it, or above it."""
    regimes = _regimes()
    lower = [r for r in regimes if r["high"] < 1]
    higher = [r for r in regimes if r["low"] > 1]
    level = len(regimes) - len(lower) - len(higher)
    words = (
        f"Bayes's MSE is below the MLE's in {len(lower)} of {len(regimes)} regimes "
        f"({span([r['ratio'] for r in lower], 2)}× it), level with it in {level}"
    )
    if higher:
        words += (
            f" and above it in {len(higher)} (by at most "
            f"{100 * (max(r['ratio'] for r in higher) - 1):.1f}%: "
            + ", ".join(
                f"{r['protocol']} ε = {r['epsilon']:g}, n = {count_words(r['n'])}" for r in higher
            )
            + ")"
        )
    return words + f" (paired 95% intervals; {_prior_setting()})"


def learned_prior_coverage() -> str:
    """How often the intervals held the truth, where the note flags the prior and not."""
    regimes = _regimes()
    flagged = [r for r in regimes if r["flagged"] > r["collections"] / 2]
    quiet = [r for r in regimes if r["flagged"] <= r["collections"] / 2]

    def rates(rows: list[Row], which: int) -> str:
        return span([100 * r["raw"][which] for r in rows], 3) + "%"

    return (
        f"the 95% credible intervals held frequent values {rates(flagged, 0)} of the time in "
        f"the {len(flagged)} regimes where the note that the prior shapes the answer shows "
        f"in most collections, and {rates(quiet, 0)} in the other {len(quiet)}; rare values "
        f"{rates(regimes, 1)} ({_prior_setting()})"
    )


#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "coverage.how": coverage_how,
    "coverage.tables": coverage_tables,
    "coverage.short-blocks": coverage_short_blocks,
    "coverage.finding": coverage_finding,
    "coverage.target": coverage_target,
    "learned-prior.table": learned_prior_table,
    "learned-prior.mse": learned_prior_mse,
    "learned-prior.coverage": learned_prior_coverage,
}
