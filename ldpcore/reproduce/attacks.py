"""Cao, Jia and Gong (USENIX Security 2021): the three poisoning attacks compared.

Their headline comparison, on the tool's own data: the random perturbed-value (RPA),
random-item (RIA) and maximal-gain (MGA) attacks against GRR, OUE and OLH, with 5% fake
users pushing one target, at ε ∈ {0.5, 1, 2} and d ∈ {64, 1024} (Zipf s = 1.5, 10⁶
honest users). Each cell is :func:`ldpcore.experiments.poisoning.run_attack`: fake
reports drawn exactly, Base's gain per trial, and the closed form beside it
(:func:`ldpcore.attacks.expected_gain`).

Its claims are checked from the paper's text here, in the form
its closed forms give them (Cao et al.'s formulas: GRR's maximal gain
``β(1 − f_T) + β(d − r)/(e^ε − 1)``, OUE's and OLH's ``β(2r − f_T) + 2βr/(e^ε − 1)``),
with every threshold fixed before anything is measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldpcore.attacks import AttackSpec
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.poisoning import run_attack
from ldpcore.reproduce.judging import Claim, judge, percent
from ldpcore.reproduce.recipe import Context, Recipe, RecipeOutput

PAPER = "Data Poisoning Attacks to Local Differential Privacy Protocols, USENIX Security 2021"
PROTOCOLS = ("GRR", "OUE", "OLH")
ATTACKS = ("rpa", "ria", "mga")
EPSILONS = (0.5, 1.0, 2.0)
DOMAINS = (64, 1024)
BETA, TARGETS, USERS = 0.05, 1, 1_000_000
#: GRR's maximal gain from d = 64 to 1,024 at ε = 1 grows 15.8× by the closed form; the
#: claim allows anything above 10×. OUE's and OLH's stay within 10% (the closed form: 1×).
GRR_GROWTH_LOW, FLAT_WITHIN = 10.0, 0.10
#: A cell's simulated mean is "the closed form" when within 3.29 standard errors (two-sided
#: 0.1%) plus 2% of it: OLH hashes with a real family where the closed form assumes an
#: ideal one (measured 0.4% apart at ε = 1, d = 1,024, which 50 trials resolve). With 54
#: cells, more than 2 misses would be unlikely for a correct sampler.
Z_MAX, RELATIVE, MISSES_ALLOWED = 3.29, 0.02, 2


def _resample(frame: pd.DataFrame, index: np.ndarray) -> pd.DataFrame:
    """``gain`` recomputed on the trials ``index`` (every cell the same trials)."""
    return frame.assign(gain=[float(np.mean(g[index])) for g in frame["trial_gain"]])


def _gain(frame: pd.DataFrame, protocol: str, attack: str, epsilon: float, d: int) -> float:
    rows = frame[
        (frame["protocol"] == protocol)
        & (frame["attack"] == attack)
        & np.isclose(frame["epsilon"], epsilon)
        & (frame["d"] == d)
    ]
    return float(rows["gain"].iloc[0])


def attacks(context: Context) -> RecipeOutput:
    """Base's gain for each attack, protocol, ε and d, with the closed form."""
    trials = 10 if context.quick else 50
    cells = [(p, a, e, d) for p in PROTOCOLS for a in ATTACKS for e in EPSILONS for d in DOMAINS]
    rows = []
    for position, (protocol, attack, epsilon, d) in enumerate(cells):
        context.report(position / len(cells), f"{protocol}, {attack}, ε = {epsilon:g}, d = {d}")
        config = ExperimentConfig(
            dataset=f"zipf:d={d},s=1.5",
            n=USERS,
            protocol=protocol,
            epsilon=epsilon,
            methods=("Base",),
            trials=trials,
            seed=2021,
        )
        result = run_attack(config, AttackSpec(attack, beta=BETA, targets=TARGETS))
        gains = result.gains[0]
        rows.append(
            {
                "protocol": protocol,
                "attack": attack,
                "epsilon": epsilon,
                "d": d,
                "gain": float(gains.mean()),
                "closed_form": result.expected,
                "se": float(gains.std(ddof=1) / math.sqrt(gains.size)),
                "trial_gain": gains,
            }
        )
    frame = pd.DataFrame(rows)
    claims = _claims(frame, trials)
    shown = frame.drop(columns="trial_gain")
    return RecipeOutput(
        shown,
        _figure(shown),
        claims,
        f"Zipf s=1.5, n = {USERS:,}, β = {BETA:.0%}, r = {TARGETS}, ε ∈ {EPSILONS}, "
        f"d ∈ {DOMAINS}, {trials} trials per cell",
        "Its claims are checked from the paper's text, as its closed forms "
        "state them. OLH uses the real hash family (the closed form assumes an ideal "
        "one); its cells are within the same bounds.",
    )


def _claims(frame: pd.DataFrame, trials: int) -> list[Claim]:
    def mga_wins(f: pd.DataFrame) -> float:
        wins = [
            _gain(f, p, "mga", e, d) > max(_gain(f, p, "rpa", e, d), _gain(f, p, "ria", e, d))
            for p in PROTOCOLS
            for e in EPSILONS
            for d in DOMAINS
        ]
        return float(np.mean(wins))

    def falls_with_epsilon(f: pd.DataFrame) -> float:
        series = [
            np.all(np.diff([_gain(f, p, "mga", e, d) for e in EPSILONS]) < 0)
            for p in PROTOCOLS
            for d in DOMAINS
        ]
        return float(np.mean(series))

    def growth(protocol: str) -> Callable[[pd.DataFrame], float]:
        return lambda f: _gain(f, protocol, "mga", 1.0, 1024) / _gain(f, protocol, "mga", 1.0, 64)

    judged = [
        judge(
            "The maximal-gain attack raises the target more than the random perturbed-value "
            "and random-item attacks, for every protocol",
            mga_wins,
            frame,
            describe=lambda v: f"MGA ahead in {v:.0%} of {len(PROTOCOLS) * 6} settings",
            low=1.0,
            resample=_resample,
            trials=trials,
            show=percent,
        ),
        judge(
            "A stronger privacy guarantee makes the collection easier to poison: the "
            "maximal gain grows as ε shrinks",
            falls_with_epsilon,
            frame,
            describe=lambda v: f"gain falling with ε in {v:.0%} of 6 protocol × d series",
            low=1.0,
            resample=_resample,
            trials=trials,
            show=percent,
        ),
        judge(
            "GRR's maximal gain grows with the number of values d (the β(d − r)/(e^ε − 1) "
            "term): from d = 64 to 1,024 at ε = 1 by more than 10×",
            growth("GRR"),
            frame,
            describe=lambda v: f"GRR's gain × {v:.1f}",
            low=GRR_GROWTH_LOW,
            resample=_resample,
            trials=trials,
        ),
    ]
    for protocol in ("OUE", "OLH"):
        judged.append(
            judge(
                f"{protocol}'s maximal gain does not depend on d: from d = 64 to 1,024 at "
                "ε = 1 it changes by less than 10%",
                growth(protocol),
                frame,
                describe=partial(_times, protocol),
                low=1 - FLAT_WITHIN,
                high=1 + FLAT_WITHIN,
                resample=_resample,
                trials=trials,
            )
        )
    apart = (frame["gain"] - frame["closed_form"]).abs()
    misses = int((apart > Z_MAX * frame["se"] + RELATIVE * frame["closed_form"].abs()).sum())
    z = apart / frame["se"]
    worst = frame.loc[z.idxmax()]
    judged.append(
        Claim(
            "The gains are as the closed forms say (every attack, protocol, ε and d)",
            f"{len(frame) - misses} of {len(frame)} cells within {Z_MAX} standard errors "
            f"plus {RELATIVE:.0%} of the closed form (largest |z| = {z.max():.2f}: "
            f"{worst['protocol']} {worst['attack']} at ε = {worst['epsilon']:g}, "
            f"d = {worst['d']:,}; at most {MISSES_ALLOWED} misses allowed)",
            misses <= MISSES_ALLOWED,
        )
    )
    return judged


def _times(protocol: str, value: float) -> str:
    return f"{protocol}'s gain × {value:.3f}"


def _figure(frame: pd.DataFrame) -> go.Figure:
    """Base's gain against ε at d = 1,024, one panel-free line per protocol and attack."""
    figure = go.Figure()
    dashes = {"rpa": "dot", "ria": "dash", "mga": "solid"}
    colours = {"GRR": "rgb(0,114,178)", "OUE": "rgb(213,94,0)", "OLH": "rgb(0,158,115)"}
    wide = frame[frame["d"] == 1024]
    for (protocol, attack), rows in wide.groupby(["protocol", "attack"], sort=False):
        figure.add_trace(
            go.Scatter(
                x=rows["epsilon"],
                y=rows["gain"],
                mode="lines+markers",
                name=f"{protocol} {attack}",
                line={"dash": dashes[str(attack)], "color": colours[str(protocol)]},
            )
        )
    figure.update_layout(
        title="Cao et al. 2021: the target's gain in its Base estimate (5% fake users, d = 1,024)",
        xaxis_title="ε",
        yaxis={"title": "gain", "type": "log"},
        template="plotly_white",
        height=420,
    )
    return figure


RECIPES = [
    Recipe(
        "cao-attacks", "Three poisoning attacks against GRR, OUE and OLH", PAPER, 15, 60, attacks
    ),
]
