"""MLE paper (Lopuhaä-Zwakenberg, Li, Škorić, Li), Section 5: MLE vs Norm-Sub vs Base.

Setting of Sec. 5: P drawn 100 times from the Jeffreys prior (symmetric Dirichlet
with parameter 1/2); n users drawn from P; RR (GRR) with a = 1024 and UE with
a = 10; ε in [0.2, 2]; errors ``||P − P̂||²`` and ``||F − F̂||²`` (sums over values,
reading note 3), averaged over the draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldpcore.postprocess import get_method
from ldpcore.present import figures
from ldpcore.protocols import get_protocol
from ldpcore.reproduce.judging import Claim, judge, resample_draws
from ldpcore.reproduce.recipe import Context, Recipe, RecipeOutput
from ldpcore.rng import trial_generators

PAPER = "Lopuhaä-Zwakenberg, Li, Škorić, Li: Improving Frequency Estimation under LDP, Sec. 5"
METHODS = ("Base", "Norm-Sub", "MLE")


def _epsilons(context: Context) -> tuple[float, ...]:
    return (0.5, 1.0, 2.0) if context.quick else tuple(round(0.2 * i, 1) for i in range(1, 11))


def _draws(context: Context) -> int:
    return 5 if context.quick else 100


def _run(context: Context, protocol: str, d: int, users: tuple[int, ...]) -> pd.DataFrame:
    """Squared errors (sums over values), one row per (n, ε, method, Jeffreys draw)."""
    rows = []
    epsilons = _epsilons(context)
    steps = len(users) * len(epsilons)
    for u, n in enumerate(users):
        for e, epsilon in enumerate(epsilons):
            context.report((u * len(epsilons) + e) / steps, f"n = {n:,}, ε = {epsilon:g}")
            oracle = get_protocol(protocol, epsilon=epsilon, domain_size=d)
            for draw, generator in enumerate(trial_generators(2019 + u, _draws(context))):
                p = generator.dirichlet(np.full(d, 0.5))
                counts = generator.multinomial(n, p)
                f = counts / n
                tallies = oracle.sample_tallies(counts, generator)
                base = oracle.estimate_from_tallies(tallies, n)
                for method in METHODS:
                    estimate = get_method(method)(base, protocol=oracle, n=n, tallies=tallies)
                    rows.append(
                        {
                            "n": n,
                            "epsilon": epsilon,
                            "method": method,
                            "draw": draw,
                            "error_p": float(np.sum((p - estimate) ** 2)),
                            "error_f": float(np.sum((f - estimate) ** 2)),
                        }
                    )
    return pd.DataFrame(rows)


def _means(raw: pd.DataFrame) -> pd.DataFrame:
    """Mean errors (and their spread over draws) per (n, ε, method)."""
    return raw.groupby(["n", "epsilon", "method"], sort=False, as_index=False).agg(
        error_p=("error_p", "mean"),
        error_p_std=("error_p", "std"),
        error_f=("error_f", "mean"),
        error_f_std=("error_f", "std"),
    )


def _judge(
    text: str, statistic: Callable[[pd.DataFrame], float], raw: pd.DataFrame, **options: Any
) -> Claim:
    """A claim on the mean errors, judged with a bootstrap over the Jeffreys draws."""
    return judge(
        text,
        lambda r: statistic(_means(r)),
        raw,
        resample=resample_draws,
        trials=int(raw["draw"].max()) + 1,
        **options,
    )


def _figure(frame: pd.DataFrame, title: str) -> go.Figure:
    from plotly.subplots import make_subplots  # noqa: PLC0415

    users = list(dict.fromkeys(frame["n"]))
    titles = [f"{label}, n = {n:,}" for n in users for label in ("error of P̂", "error of F̂")]
    figure = make_subplots(rows=len(users), cols=2, subplot_titles=titles)
    for row, n in enumerate(users, start=1):
        part = frame[frame["n"] == n]
        for col, column in enumerate(("error_p", "error_f"), start=1):
            for method, rows in part.groupby("method", sort=False):
                style = figures.method_style(str(method))
                figure.add_scatter(
                    x=rows["epsilon"],
                    y=rows[column],
                    name=str(method),
                    mode="lines+markers",
                    legendgroup=str(method),
                    showlegend=row == 1 and col == 1,
                    line={"color": style["color"], "dash": style["dash"]},
                    row=row,
                    col=col,
                )
    figure.update_yaxes(type="log", exponentformat="power")
    figure.update_xaxes(title_text="ε")
    figure.update_layout(title=title, template="plotly_white", height=700)
    return figure


def _value(frame: pd.DataFrame, method: str, n: int, epsilon: float, column: str) -> float:
    rows = frame[
        (frame["method"] == method) & (frame["n"] == n) & np.isclose(frame["epsilon"], epsilon)
    ]
    return float(rows[column].iloc[0])


def _worst_to_base(frame: pd.DataFrame) -> float:
    """The largest error ratio of Norm-Sub or MLE to Base over every n, ε and error."""
    base = frame[frame["method"] == "Base"].set_index(["n", "epsilon"])
    worst = 0.0
    for method in ("Norm-Sub", "MLE"):
        rows = frame[frame["method"] == method].set_index(["n", "epsilon"])
        for column in ("error_p", "error_f"):
            worst = max(worst, float((rows[column] / base[column]).max()))
    return worst


def fig2(context: Context) -> RecipeOutput:
    """RR (GRR), a = 1024, n = 1e6 and n = 1e4."""
    raw = _run(context, "GRR", 1024, (1_000_000, 10_000))
    frame = _means(raw)
    eps = _epsilons(context)

    def ratio(f: pd.DataFrame, n: int, e: float, column: str) -> float:
        return _value(f, "MLE", n, e, column) / _value(f, "Norm-Sub", n, e, column)

    def same(f: pd.DataFrame) -> float:
        return max(abs(ratio(f, 1_000_000, e, "error_f") - 1) for e in eps)

    def better(f: pd.DataFrame) -> float:
        return max(ratio(f, 10_000, e, "error_p") for e in eps)

    claims = [
        _judge(
            "For RR with n ≫ a (n = 1e6), Norm-Sub and MLE give the same accuracy (Sec. 5)",
            same,
            raw,
            describe=lambda v: f"largest |MLE / Norm-Sub − 1| of ||F − F̂||² over ε: {v:.3f}",
            high=0.05,
        ),
        _judge(
            "For RR with n ≈ 10a (n = 1e4), MLE is better than Norm-Sub (Sec. 5)",
            better,
            raw,
            describe=lambda v: f"largest MLE / Norm-Sub of ||P − P̂||² over ε: {v:.3f}",
            high=1.0,
        ),
        _judge(
            "Both Norm-Sub and MLE improve on the Base estimator (Sec. 5)",
            _worst_to_base,
            raw,
            describe=lambda v: f"largest ratio to Base over every n, ε and error: {v:.3f}",
            high=1.0,
        ),
    ]
    settings = (
        f"GRR, a = 1024, n ∈ {{1e6, 1e4}}, ε ∈ {eps}, {_draws(context)} Jeffreys draws (paper: 100)"
    )
    return RecipeOutput(
        frame, _figure(frame, "MLE paper Fig. 2: RR, a = 1024"), claims, settings, ""
    )


def fig3(context: Context) -> RecipeOutput:
    """UE (OUE), a = 10, n = 1e6 and n = 100."""
    raw = _run(context, "OUE", 10, (1_000_000, 100))
    frame = _means(raw)
    eps = _epsilons(context)
    high = [e for e in eps if e > 1.5]

    def ratio(f: pd.DataFrame, n: int, e: float) -> float:
        return _value(f, "MLE", n, e, "error_f") / _value(f, "Norm-Sub", n, e, "error_f")

    def similar(f: pd.DataFrame) -> float:
        """The largest factor between the two, either way round, over ε."""
        return max(math.exp(abs(math.log(ratio(f, 100, e)))) for e in eps)

    claims = [
        _judge(
            "For UE with n ≫ a, MLE is more accurate than Norm-Sub when ε > 1.5 (Sec. 5)",
            lambda f: max((ratio(f, 1_000_000, e) for e in high), default=math.inf),
            raw,
            describe=lambda v: f"largest MLE / Norm-Sub of ||F − F̂||² at ε > 1.5: {v:.3f}",
            high=1.0,
        ),
        _judge(
            "For UE with a moderate number of samples (n = 100), MLE and Norm-Sub are "
            "similar (Sec. 5)",
            similar,
            raw,
            describe=lambda v: (
                f"MLE and Norm-Sub's ||F − F̂||² within a factor {v:.2f} of each other at every ε"
            ),
            high=1.25,
        ),
        _judge(
            "Both Norm-Sub and MLE improve on the Base estimator (Sec. 5)",
            _worst_to_base,
            raw,
            describe=lambda v: f"largest ratio to Base over every n, ε and error: {v:.3f}",
            high=1.0,
        ),
    ]
    settings = (
        f"OUE, a = 10, n ∈ {{1e6, 100}}, ε ∈ {eps}, {_draws(context)} Jeffreys draws (paper: 100)"
    )
    notes = (
        "As in the paper, the MLE maximises the likelihood of the full bit vectors: the "
        "tallies are the histogram of the 2^a = 1,024 possible reports (drawn exactly, one "
        "multinomial per value), solved by accelerated EM. Until session 5 ldpcore used the "
        "support counts' binomial likelihood here, which uses less information."
    )
    return RecipeOutput(
        frame, _figure(frame, "MLE paper Fig. 3: UE, a = 10"), claims, settings, notes
    )


RECIPES = [
    Recipe("mle-fig2", "MLE vs Norm-Sub vs Base for RR, a = 1024", PAPER, 0.5, 2, fig2),
    Recipe("mle-fig3", "MLE vs Norm-Sub vs Base for UE, a = 10", PAPER, 0.5, 2, fig3),
]
