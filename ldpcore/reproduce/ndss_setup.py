"""NDSS 2020 (Wang et al., consistency), Section V: the settings and helpers its figures share.

Settings from Sec. V-A: Zipf s = 1.5, d = 1024, n = 1e6, and the Emoji data (here the
bundled stand-in, d = 1573, n = 884,427); OLH; 30 trials per point (5000 for Figs.
1–3); ε from 0.2 to 4; ρ from 1% to 90%; k from 2 to 32. MSE is the mean over answers
(reading note 3). The recipes are in :mod:`~ldpcore.reproduce.ndss_values` (Figs.
1–5: single values and the full domain) and :mod:`~ldpcore.reproduce.ndss_queries`
(Figs. 6–10: sets, categories, the choice of method and top-k).
"""

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.sweeps import sweep
from ldpcore.experiments.trials import ExperimentResult, run
from ldpcore.present import figures
from ldpcore.reproduce.recipe import Context

PAPER = (
    "Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li: LDP Frequency Estimation with Consistency, NDSS 2020"
)
#: The paper's 11 estimators (Base and the 10 post-processing methods).
METHODS = (
    "Base",
    "Base-Pos",
    "Post-Pos",
    "Base-Cut",
    "Norm",
    "Norm-Mul",
    "Norm-Cut",
    "Norm-Sub",
    "MLE-Apx",
    "Power",
    "PowerNS",
)
#: Methods that use the sum-to-one constraint (Sec. V-D).
NORMALISED = ("Norm", "Norm-Sub", "MLE-Apx", "PowerNS")
ZIPF = ("zipf:d=1024,s=1.5", 1_000_000)
EMOJI = ("emoji", 884_427)
DATASETS = {"Zipf": ZIPF, "Emoji": EMOJI}
#: z-score beyond which a mean is called biased (values are many, so not 2 or 3).
Z_LIMIT = 5.0


def _config(
    dataset: tuple[str, int],
    *,
    trials: int,
    query: str = "full",
    epsilon: float = 1.0,
    methods: Sequence[str] = METHODS,
) -> ExperimentConfig:
    return ExperimentConfig(
        dataset=dataset[0],
        n=dataset[1],
        protocol="OLH",
        epsilon=epsilon,
        methods=tuple(methods),
        query=query,
        trials=trials,
        seed=2020,
    )


def _trials(context: Context) -> int:
    return 8 if context.quick else 30


def _epsilons(context: Context) -> tuple[float, ...]:
    if context.quick:
        return (0.5, 1.0, 2.0, 4.0)
    return tuple(round(0.2 * i, 1) for i in range(1, 21))


def _sweep(
    context: Context, config: ExperimentConfig, parameter: str, values: Sequence[object], label: str
) -> pd.DataFrame:
    key = ("sweep", config, parameter, tuple(values))
    if key not in context.cache:

        def progress(done: int, total: int) -> None:
            context.report(done / total, f"{label} ({done}/{total} trials)")

        context.cache[key] = sweep(
            config,
            parameter,
            list(values),
            progress=progress,
            executor=context.executor,
            workers=context.workers,
            keep_trials=True,
        )
    frame: pd.DataFrame = context.cache[key]
    return frame


def _both(
    context: Context,
    parameter: str,
    values: Sequence[object],
    *,
    query: str = "full",
    trials: int | None = None,
) -> pd.DataFrame:
    frames = []
    for name, dataset in DATASETS.items():
        config = _config(dataset, trials=trials or _trials(context), query=query)
        frames.append(_sweep(context, config, parameter, values, name).assign(dataset=name))
    return pd.concat(frames, ignore_index=True)


def _mse(frame: pd.DataFrame, method: str, **where: object) -> float:
    """The MSE of ``method`` at the point ``where`` (floats matched to 1e-9)."""
    return float(frame["mse"].iat[_position(frame, method, where)])


def _position(frame: pd.DataFrame, method: str, where: dict[str, object]) -> int:
    mask = (frame["method"] == method).to_numpy().copy()
    for column, value in where.items():
        mask &= (
            np.isclose(frame[column], value)
            if isinstance(value, float)
            else (frame[column] == value).to_numpy()
        )
    found = np.flatnonzero(mask)
    if not found.size:
        raise InputError(f"no row for {method} with {where}")
    return int(found[0])


class _Lookup:
    """``_mse`` for a frame and its bootstrap resamples (same rows, new ``mse``).

    A claim's statistic is recomputed hundreds of times, so each point's row position
    is found once, on the measured frame, and reused.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.positions: dict[tuple[object, ...], int] = {}

    def __call__(self, resampled: pd.DataFrame, method: str, **where: object) -> float:
        key = (method, *sorted(where.items()))
        if key not in self.positions:
            self.positions[key] = _position(self.frame, method, where)
        return float(resampled["mse"].to_numpy()[self.positions[key]])


def _facets(
    frame: pd.DataFrame,
    x: str,
    *,
    title: str,
    x_title: str,
    log_x: bool = False,
    y_title: str = "MSE",
) -> go.Figure:
    """Zipf and Emoji side by side, as the paper lays its figures out."""
    from plotly.subplots import make_subplots  # noqa: PLC0415

    names = list(dict.fromkeys(frame["dataset"]))
    figure = make_subplots(rows=1, cols=len(names), subplot_titles=names)
    for column, name in enumerate(names, start=1):
        part = figures.curves(
            frame[frame["dataset"] == name],
            x,
            title="",
            x_title=x_title,
            y_title=y_title,
            log_x=log_x,
            band=None,
        )
        for trace in part.data:
            trace.showlegend = column == 1
            figure.add_trace(trace, row=1, col=column)
    figure.update_yaxes(type="log", exponentformat="power")
    if log_x:
        figure.update_xaxes(type="log")
    figure.update_xaxes(title_text=x_title)
    figure.update_layout(title=title, template="plotly_white", height=520)
    return figure


# --- Figures 1-3: one run, bias and variance by rank ----------------------------------


def _bias_run(context: Context) -> ExperimentResult:
    trials = 100 if context.quick else 5000
    config = _config(ZIPF, trials=trials)
    key = ("bias-run", config)
    if key not in context.cache:
        context.cache[key] = run(
            config,
            progress=lambda d, t: context.report(d / t, f"{d}/{t} trials"),
            executor=context.executor,
            workers=context.workers,
        )
    result: ExperimentResult = context.cache[key]
    return result


def _z(per_item: pd.DataFrame, method: str, trials: int) -> np.ndarray:
    rows = per_item[per_item["method"] == method]
    se = np.sqrt(rows["variance"].to_numpy() / trials)
    return np.where(se > 0, rows["bias"].to_numpy() / np.where(se > 0, se, 1), 0.0)


def _ranked(per_item: pd.DataFrame, method: str, column: str) -> np.ndarray:
    rows = per_item[per_item["method"] == method]
    order = np.argsort(-rows["truth"].to_numpy(), kind="stable")
    return rows[column].to_numpy()[order]


def _counts(per_item: pd.DataFrame, n: int) -> pd.DataFrame:
    return per_item.assign(
        truth=per_item["truth"] * n,
        mean=per_item["mean"] * n,
        bias=per_item["bias"] * n,
        variance=per_item["variance"] * n**2,
        mse=per_item["mse"] * n**2,
    )


def _settings_rank(context: Context) -> str:
    trials = 100 if context.quick else 5000
    return f"Zipf s=1.5, d=1024, n=1e6, OLH, ε=1, {trials} trials (paper: 5000)"


_EMOJI_NOTE = (
    "The Emoji data is the bundled stand-in (wordfreq usage, Unicode subgroups; "
    "sample_data/README.md), not the paper's keyboard data, so Emoji numbers can differ."
)


# --- Figure 5: equivalent users ---------------------------------------------------------


def _best(frame: pd.DataFrame, by: list[str]) -> list[str]:
    """The method with the lowest MSE at each point (``by`` names the point's columns)."""
    return [str(m) for m in frame.loc[frame.groupby(by, sort=False)["mse"].idxmin(), "method"]]


def _share_best(frame: pd.DataFrame, by: list[str], method: str) -> float:
    """At what share of the points ``method`` has the lowest MSE."""
    return float(np.mean([m == method for m in _best(frame, by)]))
