"""NDSS 2020 Section V, Figs. 6–10: sets, the Emoji categories, choosing a method, top-k."""

import dataclasses
import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldpcore.advice import recommend
from ldpcore.protocols import get_protocol
from ldpcore.reproduce.judging import Claim, judge, percent
from ldpcore.reproduce.ndss_setup import (
    _EMOJI_NOTE,
    DATASETS,
    EMOJI,
    METHODS,
    NORMALISED,
    _best,
    _both,
    _config,
    _epsilons,
    _facets,
    _Lookup,
    _mse,
    _share_best,
    _sweep,
    _trials,
)
from ldpcore.reproduce.recipe import Context, RecipeOutput


def fig6(context: Context) -> RecipeOutput:
    """Set-value MSE, ρ from 10% to 90%."""
    rhos = (0.1, 0.3, 0.5, 0.7, 0.9) if context.quick else tuple(i / 10 for i in range(1, 10))
    frame = _both(context, "rho", rhos, query="set:rho=0.1")
    figure = _facets(
        frame,
        "rho",
        title="NDSS Fig. 6: set-value MSE against ρ (ε = 1)",
        x_title="ρ (fraction of the domain)",
    )

    at = _Lookup(frame)

    def asymmetry(f: pd.DataFrame) -> float:
        return max(
            abs(math.log10(at(f, m, dataset=d, rho=r) / at(f, m, dataset=d, rho=round(1 - r, 1))))
            for m in NORMALISED
            for d in DATASETS
            for r in (0.1, 0.3)
        )

    others = ("Base", "Base-Pos", "Post-Pos", "Base-Cut")

    def margin(f: pd.DataFrame) -> float:
        return min(
            at(f, o, dataset=d, rho=0.9) / at(f, "PowerNS", dataset=d, rho=0.9)
            for o in others
            for d in DATASETS
        )

    claims = [
        judge(
            "The MSE of the normalised methods is symmetric around ρ = 50% (Sec. V-D)",
            asymmetry,
            frame,
            describe=lambda v: (
                f"largest |log10 MSE(ρ)/MSE(1−ρ)| for {', '.join(NORMALISED)}: {v:.2f}"
            ),
            high=0.15,
        ),
        judge(
            "At ρ = 90%, PowerNS beats every non-normalised method by at least two orders "
            "of magnitude (Sec. V-D)",
            margin,
            frame,
            describe=lambda v: f"smallest ratio to PowerNS: {v:.0f}×",
            low=100,
        ),
    ]
    settings = (
        f"OLH, Zipf and Emoji stand-in, ε=1, ρ ∈ {rhos}, 10 random sets per trial, "
        f"{_trials(context)} trials"
    )
    return RecipeOutput(frame, figure, claims, settings, _EMOJI_NOTE)


def fig7(context: Context) -> RecipeOutput:
    """Set-value MSE, ρ from 1% to 10%."""
    rhos = (0.01, 0.05, 0.1) if context.quick else tuple(i / 100 for i in range(1, 11))
    frame = _both(context, "rho", rhos, query="set:rho=0.01")
    figure = _facets(
        frame,
        "rho",
        title="NDSS Fig. 7: set-value MSE against ρ (ε = 1)",
        x_title="ρ (fraction of the domain)",
    )

    at = _Lookup(frame)

    def weakest(f: pd.DataFrame) -> float:
        return min(
            at(f, m, dataset=d, rho=rhos[-1]) / at(f, m, dataset=d, rho=rhos[0])
            for m in METHODS
            for d in DATASETS
        )

    claims = [
        judge(
            "Within ρ from 1% to 10%, the errors of all methods increase with ρ (Sec. V-D)",
            weakest,
            frame,
            describe=lambda v: (
                f"smallest MSE(ρ = {rhos[-1]:g}) / "
                f"MSE(ρ = {rhos[0]:g}) over methods and datasets: {v:.2f}"
            ),
            low=1.0,
        ),
    ]
    settings = f"OLH, Zipf and Emoji stand-in, ε=1, ρ ∈ {rhos}, {_trials(context)} trials"
    return RecipeOutput(frame, figure, claims, settings, _EMOJI_NOTE)


# --- Figures 8-9: Emoji categories ------------------------------------------------------


LEFT = ("Base", "Base-Pos", "Post-Pos", "Norm", "Norm-Mul", "Norm-Sub")


def fig8(context: Context) -> RecipeOutput:
    """Set-value MSE of the Emoji categories against ε."""
    eps = _epsilons(context)
    config = _config(EMOJI, trials=_trials(context), query="groups")
    frame = _sweep(context, config, "epsilon", eps, "Emoji categories").assign(dataset="Emoji")
    figure = _facets(
        frame, "epsilon", title="NDSS Fig. 8: MSE of the Emoji category totals", x_title="ε"
    )

    def cut_share(f: pd.DataFrame) -> float:
        below = f[f["epsilon"] < 3]
        return _share_best(below, ["epsilon"], "Norm-Cut") if len(below) else 0.0

    left_best = _best(frame[frame["method"].isin(LEFT)], ["epsilon"])
    overall = _best(frame, ["epsilon"])
    claims = [
        judge(
            "Among Base, Base-Pos, Post-Pos, Norm, Norm-Mul and Norm-Sub, Post-Pos works "
            "best (Sec. V-D)",
            lambda f: _share_best(f[f["method"].isin(LEFT)], ["epsilon"], "Post-Pos"),
            frame,
            describe=lambda v: (
                f"Post-Pos is the best of these at {v:.0%} of ε values "
                f"(best per ε: {', '.join(left_best)})"
            ),
            low=0.75,
            show=percent,
        ),
        judge(
            "Norm-Cut performs even better, especially when ε < 3 (Sec. V-D)",
            cut_share,
            frame,
            describe=lambda v: (
                f"Norm-Cut is the best of all at {v:.0%} of ε < 3 "
                f"(best per ε: {', '.join(overall)})"
            ),
            low=0.75,
            show=percent,
        ),
    ]
    settings = (
        f"OLH, Emoji stand-in (98 Unicode subgroups as categories; paper: 68), "
        f"ε ∈ {{{', '.join(f'{e:g}' for e in eps)}}}, {_trials(context)} trials"
    )
    return RecipeOutput(frame, figure, claims, settings, _EMOJI_NOTE)


def fig9(context: Context) -> RecipeOutput:
    """Choosing the method on a synthetic dataset fitted to one collection (Sec. V-D)."""
    eps = (1.0, 2.0) if context.quick else (0.5, 1.0, 2.0, 4.0)
    trials = 5 if context.quick else 30
    config = _config(EMOJI, trials=_trials(context), query="groups")
    truth = _sweep(context, config, "epsilon", eps, "Emoji categories (truth)")
    data, _, _ = dataclasses.replace(config, epsilon=1.0).build()
    rows = []
    for position, epsilon in enumerate(eps):
        oracle = get_protocol("OLH", epsilon=epsilon, domain_size=data.domain_size)
        generator = np.random.default_rng(9 + position)
        estimate = oracle.estimate(oracle.sample_support_counts(data.counts, generator), data.n)
        for stand_in in ("Norm-Sub", "PowerNS"):
            context.report((position + 0.5) / len(eps), f"ε = {epsilon:g}, {stand_in} stand-in")
            ranking = recommend(
                estimate,
                protocol=oracle,
                n=data.n,
                query="groups",
                methods=METHODS,
                trials=trials,
                seed=position,
                truth_from=stand_in,
                groups=data.groups,
            )
            for record in ranking.ranking.to_dict("records"):
                rows.append(
                    {
                        "epsilon": epsilon,
                        "stand_in": stand_in,
                        **record,
                        "true_mse": _mse(truth, str(record["method"]), epsilon=epsilon),
                    }
                )
    frame = pd.DataFrame(rows)
    figure = go.Figure()
    for stand_in, part in frame.groupby("stand_in", sort=False):
        picked = part[part["rank"] == 1]
        figure.add_bar(
            x=[f"ε={e:g}" for e in picked["epsilon"]],
            y=picked["true_mse"],
            name=f"picked via {stand_in}",
            text=list(picked["method"]),
            textposition="outside",
        )
    best_true = truth.loc[truth.groupby("epsilon")["mse"].idxmin()]
    figure.add_bar(
        x=[f"ε={e:g}" for e in best_true["epsilon"]],
        y=best_true["mse"],
        name="truly best",
        text=list(best_true["method"]),
        textposition="outside",
    )
    figure.update_layout(
        title="NDSS Fig. 9: the method picked on a synthetic stand-in, and its true MSE",
        yaxis_type="log",
        barmode="group",
        yaxis_title="true MSE of the picked method",
        template="plotly_white",
    )
    via_sub = frame[(frame["stand_in"] == "Norm-Sub") & (frame["rank"] == 1)]
    regret = [
        float(row["true_mse"])
        / float(best_true[best_true["epsilon"] == row["epsilon"]]["mse"].iloc[0])
        for row in via_sub.to_dict("records")
    ]
    via_power = frame[(frame["stand_in"] == "PowerNS") & (frame["rank"] == 1)]
    power_share = float(np.mean(via_power["method"] == "PowerNS"))
    claims = [
        Claim(
            "With Norm-Sub making the synthetic data, the optimal method is found quite "
            "accurately (Sec. V-D)",
            "true MSE of the picked method / of the truly best: "
            + ", ".join(f"{r:.2f}" for r in regret),
            bool(max(regret) <= 1.25),
        ),
        Claim(
            "With PowerNS making the synthetic data, PowerNS is selected (Sec. V-D)",
            f"PowerNS picked at {power_share:.0%} of ε values",
            bool(power_share >= 0.75),
        ),
    ]
    settings = (
        f"OLH, Emoji stand-in categories, one collection per ε ∈ {eps}, "
        f"{trials} synthetic trials per ranking"
    )
    return RecipeOutput(frame, figure, claims, settings, _EMOJI_NOTE)


# --- Figure 10: top-k -------------------------------------------------------------------


def fig10(context: Context) -> RecipeOutput:
    """Top-k MSE, k from 2 to 32, ε = 1."""
    ks = (2, 4, 8, 16, 32)
    frame = _both(context, "topk", ks, query="topk:k=2")
    figure = _facets(
        frame, "topk", title="NDSS Fig. 10: top-k MSE against k (ε = 1)", x_title="k", log_x=True
    )

    at = _Lookup(frame)

    def mul(f: pd.DataFrame) -> float:
        return min(
            at(f, "Norm-Mul", dataset=d, topk=k) / at(f, m, dataset=d, topk=k)
            for d in DATASETS
            for k in ks
            for m in METHODS
            if m != "Norm-Mul"
        )

    def between(f: pd.DataFrame) -> float:
        return float(
            all(
                at(f, "Base", dataset=d, topk=k)
                < at(f, "Norm-Sub", dataset=d, topk=k)
                < at(f, "Norm-Mul", dataset=d, topk=k)
                for d in DATASETS
                for k in ks
            )
        )

    growers = ("Base-Cut", "Norm-Cut", "Power", "PowerNS")

    def growing(f: pd.DataFrame) -> float:
        return min(
            at(f, m, dataset=d, topk=32) / at(f, m, dataset=d, topk=2)
            for m in growers
            for d in DATASETS
        )

    def cut(f: pd.DataFrame) -> float:
        return float(
            np.mean(
                [
                    at(f, "Norm-Cut", dataset=d, topk=k) <= at(f, "Base-Cut", dataset=d, topk=k)
                    for d in DATASETS
                    for k in ks
                ]
            )
        )

    steady_methods = ("Base", "Base-Pos", "Post-Pos", "Norm")

    def steady(f: pd.DataFrame) -> float:
        return max(
            max(values) / min(values)
            for d in DATASETS
            for m in steady_methods
            for values in [[at(f, m, dataset=d, topk=k) for k in ks]]
        )

    claims = [
        judge(
            "Norm-Mul performs at least 10× worse than any other method (Sec. V-E)",
            mul,
            frame,
            describe=lambda v: f"smallest MSE ratio of Norm-Mul to another method: {v:.1f}×",
            low=10,
        ),
        judge(
            "Norm-Sub performs worse than Base, but better than Norm-Mul (Sec. V-E)",
            between,
            frame,
            describe=lambda v: (
                f"Base < Norm-Sub < Norm-Mul at every k on both datasets: {'yes' if v else 'no'}"
            ),
            low=1.0,
        ),
        judge(
            "Base-Cut, Norm-Cut, Power and PowerNS have MSE that grows with k (Sec. V-E)",
            growing,
            frame,
            describe=lambda v: (
                f"smallest MSE(k = 32) / MSE(k = 2) of {', '.join(growers)}: {v:.1f}×"
            ),
            low=1.0,
        ),
        judge(
            "Norm-Cut is better than Base-Cut (Sec. V-E)",
            cut,
            frame,
            describe=lambda v: f"Norm-Cut ≤ Base-Cut at {v:.0%} of (dataset, k) points",
            low=0.8,
            show=percent,
        ),
        judge(
            "Base, Base-Pos, Post-Pos and Norm perform consistently well for different k "
            "(Sec. V-E)",
            steady,
            frame,
            describe=lambda v: (
                f"largest max/min of MSE over k of {', '.join(steady_methods)}: {v:.1f}"
            ),
            high=3.0,
        ),
    ]
    settings = f"OLH, Zipf and Emoji stand-in, ε=1, k ∈ {ks}, {_trials(context)} trials"
    return RecipeOutput(frame, figure, claims, settings, _EMOJI_NOTE)
