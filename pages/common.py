"""App-layer helpers shared by the pages: the sidebar, cached runs, downloads.

The only place that caches (``st.cache_data``); ``ldpcore`` stays streamlit-free.
Nothing here is module-level mutable state: every value lives in the session.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ldpcore import bounds, viz
from ldpcore.datasets import bundled_names
from ldpcore.experiment import ExperimentConfig, run, sweep
from ldpcore.postprocess import METHODS, method_names
from ldpcore.protocols import describe_protocols, protocol_names

# Round, roughly log-spaced steps: a slider position is a value people can quote.
EPSILONS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0,
            2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0)  # fmt: skip
USERS = (*(m * 10**e for e in range(2, 9) for m in (1, 2, 5)), 10**9)
DOMAINS = (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 100_000)


def sidebar() -> ExperimentConfig | None:
    """Draw the shared sidebar; return the configuration it describes (None if invalid).

    Every widget is bound to the URL, so a link reproduces the view.
    """
    bar = st.sidebar
    bar.header("Simulation")
    protocol = bar.selectbox("Protocol", protocol_names(), index=1, key="protocol",
                             bind="query-params")  # fmt: skip
    epsilon = bar.select_slider("Privacy budget ε", EPSILONS, value=1.0, key="epsilon",
                                bind="query-params")  # fmt: skip
    # No format_func: the URL carries the option's label, and plain digits keep links clean.
    n = bar.select_slider("Users n", USERS, value=10**6, key="n", bind="query-params")
    d = bar.select_slider("Domain size d", DOMAINS, value=1024, key="d", bind="query-params")
    samples = bundled_names()
    shape = bar.radio("Dataset", ("Zipf", "uniform", *(f"sample: {name}" for name in samples)),
                      key="dataset", bind="query-params")  # fmt: skip
    s = 1.5
    if shape == "Zipf":
        s = bar.slider("Zipf exponent s", 0.0, 3.0, 1.5, 0.1, key="s", bind="query-params")
    elif shape.startswith("sample: "):
        bar.caption("A bundled sample keeps its own domain; d does not apply.")
    methods = bar.multiselect("Methods", method_names(), default=list(method_names()),
                              key="methods", bind="query-params")  # fmt: skip
    trials = bar.slider("Trials", bounds.TRIALS_MIN, 200, 30, key="trials", bind="query-params")
    seed = bar.number_input("Seed", 0, 2**31 - 1, 0, key="seed", bind="query-params")
    if not methods:
        bar.error("Pick at least one method.")
        return None
    if shape == "Zipf":
        dataset = f"zipf:d={d},s={s:g}"
    elif shape == "uniform":
        dataset = f"uniform:d={d}"
    else:
        dataset = shape.removeprefix("sample: ")
    try:
        return ExperimentConfig(
            dataset=dataset, n=int(n), protocol=protocol, epsilon=float(epsilon),
            methods=tuple(methods), trials=int(trials), seed=int(seed),
        )  # fmt: skip
    except ValueError as exc:
        bar.error(str(exc))
        return None


def require_config() -> ExperimentConfig:
    """Draw the sidebar; stop the page with a hint when its settings are not usable."""
    config = sidebar()
    if config is None:
        st.info("Fix the settings in the sidebar to see results.")
        st.stop()
    return config


@st.cache_data(show_spinner=False, max_entries=64)
def simulate(config: ExperimentConfig) -> dict[str, Any]:
    """Run (cached) and return plain tables."""
    result = run(config)
    return {
        "summary": result.summary,
        "per_item": result.per_item,
        "analytic": result.analytic,
        "labels": result.labels,
    }


@st.cache_data(show_spinner=False, max_entries=64)
def explorer_figures(config: ExperimentConfig, relative: bool) -> dict[str, dict[str, Any]]:
    """The Explorer's four figures as plain dicts, cached with the simulation.

    Building Plotly figures costs ~0.1 s per rerun; a warm slider move should not pay it.
    """
    result = simulate(config)
    per_item, summary, analytic = result["per_item"], result["summary"], result["analytic"]
    figures = {
        "estimates": viz.estimates_by_rank(per_item),
        "bias": viz.by_rank(per_item, "bias", title="Bias by rank"),
        "variance": viz.by_rank(per_item, "variance", title="Variance by rank", log_y=True),
        "mse": viz.mse_bars(
            summary,
            base_mse=analytic["base_mse"],
            lower_bound=analytic["lower_bound"],
            relative_to_base=relative,
        ),
    }
    return {name: figure.to_plotly_json() for name, figure in figures.items()}


@st.cache_data(show_spinner=False, max_entries=64)
def protocols_table(epsilon: float, domain_size: int, n: int) -> pd.DataFrame:
    """Every protocol's p, q, Base variance and worst-case ratio (cached: the ratio is
    computed from explicit channel matrices, millions of entries at d = 1024)."""
    return pd.DataFrame(describe_protocols(epsilon=epsilon, domain_size=domain_size, n=n))


@st.cache_data(show_spinner=False, max_entries=32)
def simulate_sweep(
    config: ExperimentConfig, parameter: str, values: tuple[Any, ...]
) -> pd.DataFrame:
    """A cached sweep (progress is shown by the caller's spinner)."""
    return sweep(config, parameter, list(values))


def run_or_explain(action: Callable[[], Any], what: str) -> Any:
    """Run ``action`` with a status line; show a ValueError as an error, not a traceback."""
    try:
        with st.spinner(what):
            return action()
    except ValueError as exc:
        st.error(f"{exc}")
        return None


def command_line(config: ExperimentConfig, *, query: str | None = None) -> str:
    """The ``ldpcore simulate`` command that reproduces a configuration."""
    methods = ",".join(config.methods) if config.methods != method_names() else "all"
    parts = [
        "ldpcore", "simulate", "--protocol", config.protocol, "--epsilon", f"{config.epsilon:g}",
        "--n", str(config.n), "--dataset", config.dataset, "--methods", methods,
        "--query", query or config.query, "--trials", str(config.trials), "--seed",
        str(config.seed), "--format", "json",
    ]  # fmt: skip
    return " ".join(shlex.quote(p) for p in parts)


def downloads(name: str, table: pd.DataFrame, figure: go.Figure | None, command: str) -> None:
    """CSV of the numbers, the chart as HTML and PNG, and the command line."""
    columns = st.columns(4)
    columns[0].download_button(
        "Numbers (CSV)", data=table.to_csv(index=False).encode(), file_name=f"{name}.csv",
        mime="text/csv", key=f"csv-{name}", on_click="ignore",
    )  # fmt: skip
    columns[1].download_button(
        "Command line", data=command.encode(), file_name=f"{name}.sh", mime="text/plain",
        key=f"cmd-{name}", on_click="ignore",
    )  # fmt: skip
    if figure is None:
        return
    columns[2].download_button(
        "Chart (HTML)", data=lambda: figure.to_html(include_plotlyjs=True).encode(),
        file_name=f"{name}.html", mime="text/html", key=f"html-{name}", on_click="ignore",
    )  # fmt: skip
    _png_download(columns[3], name, figure, command)


def _png_download(column: Any, name: str, figure: go.Figure, command: str) -> None:
    # Rendering a PNG starts a headless browser (~3 s), so it is done on request and
    # remembered for this exact view (the command line identifies it).
    slot = f"png-{name}"
    stored = st.session_state.get(slot)
    if stored is not None and stored[0] == command:
        column.download_button(
            "Chart (PNG)", data=stored[1], file_name=f"{name}.png", mime="image/png",
            key=f"{slot}-download", on_click="ignore",
        )  # fmt: skip
        return
    if column.button("Prepare PNG", key=f"{slot}-prepare"):
        try:
            with st.spinner("Rendering the PNG…"):
                image = figure.to_image(format="png", width=1200, height=700)
        except Exception as exc:  # kaleido reports a missing browser in several ways
            st.error(
                "PNG export needs Chrome or Chromium on the server (kaleido drives it): "
                f"{exc}. The HTML download works without it."
            )
            return
        st.session_state[slot] = (command, image)
        st.rerun()


def method_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Measured numbers next to what each method enforces (from the registry metadata)."""
    rows = []
    for record in summary.to_dict("records"):
        meta = METHODS[record["method"]]
        rows.append(
            {
                "method": record["method"],
                "non-negative": meta.nonnegative,
                "sums to one": meta.sums_to_one,
                "complexity": meta.complexity,
                "MSE": record["mse"],
                "bias²": record["bias_sq"],
                "variance": record["variance"],
                "equivalent users n'": record["equivalent_users"],
            }
        )
    return pd.DataFrame(rows)


def with_query(config: ExperimentConfig, query: str) -> ExperimentConfig:
    """The same configuration asking another query."""
    return dataclasses.replace(config, query=query)
